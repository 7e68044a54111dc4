/** Given names and surnames as evidence of a person (case- and accent-folded look-ups over the name lists). */
import { COMMON_GIVEN_NAME_TEXT, COMMON_SURNAME_TEXT } from '../person-words';
import { PARTICLES } from './words';

/**
 * Common given names from many languages (written for cckit; a few hundred, not exhaustive).
 * Matched case- and accent-insensitively; hyphenated names match when every part does.
 */
const GIVEN_NAME_TEXT = `
james john robert michael william richard joseph thomas charles christopher daniel matthew anthony mark
donald steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob
gary nicholas eric jonathan stephen larry justin scott brandon benjamin ben samuel sam gregory frank
alexander raymond patrick jack dennis jerry tyler aaron henry adam douglas nathan peter zachary kyle
walter harold jeremy ethan carl keith roger gerald christian terry sean arthur austin noah lawrence jesse
joe bryan billy jordan albert dylan bruce willie gabriel alan juan logan wayne ralph roy eugene randy
vincent russell louis philip bobby johnny bradley harry oliver jake liam lucas mason elijah owen leo
luke isaac hugo oscar max felix theo toby freddie alfie archie charlie harrison tom tim tony steve mike
chris nick dave rick bill bob jim ted ed ian neil colin graham simon martin stuart ross dean craig
mary patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa betty margaret sandra
ashley kimberly emily donna michelle dorothy carol amanda melissa deborah stephanie rebecca sharon laura
cynthia kathleen amy shirley angela helen anna brenda pamela nicole emma samantha katherine christine
debra rachel catherine carolyn janet ruth maria heather diane virginia julie joyce victoria olivia kelly
christina lauren joan evelyn judith megan cheryl andrea hannah martha jacqueline frances gloria ann
teresa kathryn sara janice jean alice madison doris abigail julia judy grace denise amber marilyn
beverly danielle theresa sophia marie diana brittany natalie isabella charlotte rose alexis kayla
chloe ava mia lily zoe ella amelia harper evelyn ellie lucy sophie jessica holly kate katie molly
poppy freya isla ruby daisy alice florence phoebe imogen eleanor georgia matilda scarlett violet
taylor morgan quinn riley casey jamie alex sam robin leslie dana kim lee
jose luis carlos jorge pedro miguel antonio manuel francisco javier alejandro diego pablo sergio
fernando ricardo rafael andres eduardo roberto mario raul enrique alberto emilio hector ramon
ignacio santiago mateo nicolas gonzalo alvaro rodrigo joao tiago goncalo rui nuno paulo marcos thiago
lucia sofia carmen elena isabel paula laura marta cristina ana pilar teresa rocio beatriz ines
camila valentina gabriela daniela mariana fernanda adriana carla patricia veronica natalia andrea
jean pierre michel philippe alain jacques bernard francois louis nicolas julien antoine mathieu
guillaume olivier laurent sebastien thierry pascal vincent yves remi benoit etienne hugues clement
marie nathalie isabelle sylvie catherine francoise christine monique valerie sandrine celine aurelie
camille manon chloe lea juliette margaux amelie elodie claire helene sophie emilie mathilde
hans peter klaus jurgen wolfgang michael stefan andreas thomas frank uwe dieter karl heinz gunter
matthias markus sebastian tobias florian lukas jonas leon finn felix maximilian moritz niklas jan
ursula monika petra sabine andrea claudia susanne birgit katharina julia lena laura lea hanna anja
sven lars erik nils anders magnus olaf johan henrik mats per bjorn ingrid astrid sigrid karin freja
ebba maja elsa linnea saga liv signe
giuseppe giovanni francesco antonio mario luigi marco andrea alessandro paolo stefano roberto luca
matteo lorenzo davide simone riccardo federico fabio massimo giorgio enzo salvatore vittorio
giulia francesca chiara sara alessandra valentina martina elisa federica silvia giorgia alessia
aleksandr alexei dmitri sergei andrei ivan nikolai vladimir mikhail pavel yuri igor oleg boris
piotr pawel krzysztof tomasz marek jakub lukasz milan petr jiri tomas marcel dusan goran zoran
olga natalia tatiana elena irina svetlana anastasia ekaterina maria anna katarzyna agnieszka
magdalena zofia ewa tereza petra jana lucie eva vera nadia marina daria ksenia
georgios dimitris nikos yannis kostas eleni katerina sofia despina
mohammed muhammad ahmed ahmad ali omar umar hassan hussein ibrahim yusuf youssef khalid karim
mustafa mahmoud tariq samir nabil walid rami hamza bilal amir reza mehdi hamid farid
fatima aisha khadija zainab maryam leila layla nour yasmin amira salma hana rania yara samira
mehmet ahmet mustafa emre burak murat can cem elif zeynep ayse fatma emine merve
rahul raj amit vikram arjun rohan sanjay anil sunil ravi vijay ajay ashok deepak suresh ramesh
arun karan nikhil aditya krishna ganesh
priya pooja anjali divya neha kavya deepika sunita lakshmi meera ananya aishwarya shreya riya
hiroshi takashi kenji yuki haruto kenta daisuke takumi shota ryo kazuki satoshi akira naoki
yuko keiko yoko akiko naomi sakura hana aiko emi mai yui rin
wei li ming jun hao lei jie yang chen hui mei ling xiu yan fang jing
minjun jihoon seojun jiwoo minseo seoyeon jisoo jiyeon
kwame kofi kojo ama akua chinedu emeka ngozi chioma oluwaseun tunde amara zuri thabo sipho
nomvula lindiwe themba
david daniel michael sarah rachel rebecca leah miriam esther yosef moshe avi noa tamar yael
`;

let givenNameSet: Set<string> | undefined;

export function fold(word: string): string {
  return word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Whether `word` is a common given name (case- and accent-insensitive; "Jean-Luc": every part). */
export function isGivenName(word: string): boolean {
  givenNameSet ??= new Set(GIVEN_NAME_TEXT.split(/\s+/).filter((w) => w.length > 0));
  const folded = fold(word);
  if (givenNameSet.has(folded)) return true;
  const parts = folded.split('-');
  return parts.length > 1 && parts.every((p) => givenNameSet!.has(p));
}

let commonGivenSet: Set<string> | undefined;
let commonSurnameSet: Set<string> | undefined;

const wordSet = (text: string): Set<string> => new Set(text.split(/\s+/).filter((w) => w.length > 0 && !PARTICLES.has(w)));

/** Whether `word` is in person-words.ts's wider list of given names (evidence only, see there). */
export function isCommonGivenName(word: string): boolean {
  commonGivenSet ??= wordSet(COMMON_GIVEN_NAME_TEXT);
  const folded = fold(word);
  return commonGivenSet.has(folded) || folded.split('-').every((p) => commonGivenSet!.has(p));
}

/** Whether `word` is in person-words.ts's list of common surnames. */
export function isCommonSurname(word: string): boolean {
  commonSurnameSet ??= wordSet(COMMON_SURNAME_TEXT);
  return commonSurnameSet.has(fold(word));
}
